-- AlterTable
ALTER TABLE "Recording" ADD COLUMN     "summaryAt" TIMESTAMP(3),
ADD COLUMN     "summaryError" TEXT,
ADD COLUMN     "summaryLanguage" TEXT,
ADD COLUMN     "summaryProvider" TEXT,
ADD COLUMN     "summaryState" TEXT,
ADD COLUMN     "summaryText" TEXT,
ADD COLUMN     "summaryTitle" TEXT;
