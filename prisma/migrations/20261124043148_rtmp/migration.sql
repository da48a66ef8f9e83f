-- CreateTable
CREATE TABLE "RtmpIngest" (
    "accountId" TEXT NOT NULL,
    "keyHash" TEXT NOT NULL,
    "keyTail" TEXT NOT NULL,
    "transcriptionId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "RtmpIngest_pkey" PRIMARY KEY ("accountId")
);

-- CreateIndex
CREATE UNIQUE INDEX "RtmpIngest_keyHash_key" ON "RtmpIngest"("keyHash");
