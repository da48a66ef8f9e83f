-- CreateTable
CREATE TABLE "Broadcast" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "ownerPrincipalId" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "access" TEXT NOT NULL DEFAULT 'public',
    "passwordHash" TEXT,
    "settings" JSONB NOT NULL DEFAULT '{}',
    "source" JSONB NOT NULL,
    "lifecycle" TEXT NOT NULL DEFAULT 'active',
    "archivedAt" TIMESTAMP(3),
    "purgeAfter" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Broadcast_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "BroadcastCode" (
    "code" TEXT NOT NULL,
    "broadcastId" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BroadcastCode_pkey" PRIMARY KEY ("code")
);

-- CreateIndex
CREATE UNIQUE INDEX "Broadcast_code_key" ON "Broadcast"("code");

-- CreateIndex
CREATE INDEX "Broadcast_accountId_createdAt_id_idx" ON "Broadcast"("accountId", "createdAt" DESC, "id");

-- CreateIndex
CREATE INDEX "BroadcastCode_broadcastId_idx" ON "BroadcastCode"("broadcastId");

-- AddForeignKey
ALTER TABLE "Broadcast" ADD CONSTRAINT "Broadcast_accountId_fkey" FOREIGN KEY ("accountId") REFERENCES "Account"("id") ON DELETE RESTRICT ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "BroadcastCode" ADD CONSTRAINT "BroadcastCode_broadcastId_fkey" FOREIGN KEY ("broadcastId") REFERENCES "Broadcast"("id") ON DELETE CASCADE ON UPDATE CASCADE;
