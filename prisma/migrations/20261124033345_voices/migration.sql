-- CreateTable
CREATE TABLE "Voice" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "color" TEXT,
    "gender" TEXT,
    "sampleUrl" TEXT,
    "consent" BOOLEAN NOT NULL DEFAULT false,
    "draft" BOOLEAN NOT NULL DEFAULT false,
    "enabled" BOOLEAN NOT NULL DEFAULT true,
    "state" TEXT NOT NULL DEFAULT 'training',
    "progress" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "error" TEXT,
    "recordingId" TEXT,
    "speaker" INTEGER,
    "samplePath" TEXT,
    "sampleMime" TEXT,
    "sampleBytes" INTEGER,
    "speechS" DOUBLE PRECISION,
    "modelPath" TEXT,
    "fit" JSONB,
    "attempts" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Voice_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Voice_accountId_createdAt_idx" ON "Voice"("accountId", "createdAt" DESC);

-- AddForeignKey
ALTER TABLE "Voice" ADD CONSTRAINT "Voice_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE CASCADE ON UPDATE CASCADE;
