-- AlterTable
ALTER TABLE "Recording" ADD COLUMN     "summaryTranslations" JSONB;
