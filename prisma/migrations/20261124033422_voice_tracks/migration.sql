-- CreateTable
CREATE TABLE "VoiceTrack" (
    "id" TEXT NOT NULL,
    "recordingId" TEXT NOT NULL,
    "lang" TEXT NOT NULL,
    "voice" TEXT NOT NULL,
    "state" TEXT NOT NULL DEFAULT 'queued',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "error" TEXT,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "force" BOOLEAN NOT NULL DEFAULT false,
    "trackPath" TEXT,
    "durationS" DOUBLE PRECISION,
    "sentences" JSONB NOT NULL DEFAULT '[]',
    "renderS" DOUBLE PRECISION,
    "synthesizedS" DOUBLE PRECISION,
    "startedAt" TIMESTAMP(3),
    "sealedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "VoiceTrack_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "VoiceClip" (
    "id" TEXT NOT NULL,
    "recordingId" TEXT NOT NULL,
    "lang" TEXT NOT NULL,
    "sentenceId" TEXT NOT NULL,
    "voice" TEXT NOT NULL,
    "text" TEXT NOT NULL,
    "textFrom" TEXT NOT NULL,
    "spoken" TEXT NOT NULL,
    "translationSource" TEXT NOT NULL,
    "path" TEXT NOT NULL,
    "durationS" DOUBLE PRECISION NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "VoiceClip_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "VoiceTrack_recordingId_lang_key" ON "VoiceTrack"("recordingId", "lang");

-- CreateIndex
CREATE UNIQUE INDEX "VoiceClip_recordingId_lang_sentenceId_key" ON "VoiceClip"("recordingId", "lang", "sentenceId");

-- AddForeignKey
ALTER TABLE "VoiceTrack" ADD CONSTRAINT "VoiceTrack_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "VoiceClip" ADD CONSTRAINT "VoiceClip_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;
