-- AlterTable
ALTER TABLE "Recording" ADD COLUMN     "endedAt" TIMESTAMP(3),
ADD COLUMN     "finalizedAt" TIMESTAMP(3),
ADD COLUMN     "kind" TEXT NOT NULL DEFAULT 'file',
ADD COLUMN     "mediaS" DOUBLE PRECISION NOT NULL DEFAULT 0,
ADD COLUMN     "publisherEpoch" INTEGER NOT NULL DEFAULT 0,
ADD COLUMN     "publisherSeenAt" TIMESTAMP(3),
ADD COLUMN     "scriptText" TEXT;

-- AlterTable
ALTER TABLE "Transcription" ADD COLUMN     "broadcastIds" JSONB NOT NULL DEFAULT '[]',
ADD COLUMN     "source" JSONB;

-- CreateTable
CREATE TABLE "CaptureSpan" (
    "id" TEXT NOT NULL,
    "recordingId" TEXT NOT NULL,
    "idx" INTEGER NOT NULL,
    "wallStart" DOUBLE PRECISION NOT NULL,
    "mediaStart" DOUBLE PRECISION NOT NULL,
    "reason" TEXT NOT NULL,
    "mediaEnd" DOUBLE PRECISION,
    "wallEnd" DOUBLE PRECISION,

    CONSTRAINT "CaptureSpan_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "CaptureSpan_recordingId_idx_key" ON "CaptureSpan"("recordingId", "idx");

-- AddForeignKey
ALTER TABLE "CaptureSpan" ADD CONSTRAINT "CaptureSpan_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;
