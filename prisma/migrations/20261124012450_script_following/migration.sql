-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "scriptFrom" INTEGER,
ADD COLUMN     "scriptPos" INTEGER;
