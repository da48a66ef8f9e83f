-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "speakerConfidence" DOUBLE PRECISION;
