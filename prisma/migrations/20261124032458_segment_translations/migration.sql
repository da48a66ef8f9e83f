-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "translationSources" JSONB,
ADD COLUMN     "translations" JSONB;
