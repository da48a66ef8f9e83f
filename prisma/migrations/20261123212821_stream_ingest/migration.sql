-- AlterTable
ALTER TABLE "Recording" ADD COLUMN     "ingest" JSONB;
