-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "recognizedText" TEXT;

-- CreateTable
CREATE TABLE "Correction" (
    "id" TEXT NOT NULL,
    "batchId" TEXT NOT NULL,
    "recordingId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "seq" INTEGER NOT NULL,
    "speaker" INTEGER NOT NULL,
    "wordIdx" INTEGER,
    "from" TEXT NOT NULL,
    "to" TEXT NOT NULL,
    "before" JSONB NOT NULL,
    "after" JSONB NOT NULL,
    "actorApiKeyId" TEXT,
    "actorUserId" TEXT,
    "actorName" TEXT,
    "voiced" BOOLEAN NOT NULL,
    "notVoicedReason" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "revertedAt" TIMESTAMP(3),

    CONSTRAINT "Correction_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Correction_recordingId_createdAt_id_idx" ON "Correction"("recordingId", "createdAt" DESC, "id");

-- CreateIndex
CREATE INDEX "Correction_recordingId_seq_idx" ON "Correction"("recordingId", "seq");

-- AddForeignKey
ALTER TABLE "Correction" ADD CONSTRAINT "Correction_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;
