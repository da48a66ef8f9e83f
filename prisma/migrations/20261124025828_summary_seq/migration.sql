-- AlterTable
ALTER TABLE "Recording" ADD COLUMN     "summarySeq" INTEGER;
