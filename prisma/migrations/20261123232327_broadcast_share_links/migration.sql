-- AlterTable
ALTER TABLE "ShareLink" ADD COLUMN     "broadcastId" TEXT;

-- CreateIndex
CREATE INDEX "ShareLink_broadcastId_idx" ON "ShareLink"("broadcastId");

-- AddForeignKey
ALTER TABLE "ShareLink" ADD CONSTRAINT "ShareLink_broadcastId_fkey" FOREIGN KEY ("broadcastId") REFERENCES "Broadcast"("id") ON DELETE CASCADE ON UPDATE CASCADE;
