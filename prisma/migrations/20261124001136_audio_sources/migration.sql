-- CreateTable
CREATE TABLE "AudioSource" (
    "id" TEXT NOT NULL,
    "broadcastId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AudioSource_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "AudioSource_broadcastId_createdAt_idx" ON "AudioSource"("broadcastId", "createdAt");

-- CreateIndex
CREATE UNIQUE INDEX "AudioSource_broadcastId_url_key" ON "AudioSource"("broadcastId", "url");

-- AddForeignKey
ALTER TABLE "AudioSource" ADD CONSTRAINT "AudioSource_broadcastId_fkey" FOREIGN KEY ("broadcastId") REFERENCES "Broadcast"("id") ON DELETE CASCADE ON UPDATE CASCADE;
