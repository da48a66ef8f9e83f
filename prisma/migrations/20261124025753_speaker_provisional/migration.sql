-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "speakerProvisional" BOOLEAN;
