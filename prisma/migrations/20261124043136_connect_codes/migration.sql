-- CreateTable
CREATE TABLE "ConnectCode" (
    "id" TEXT NOT NULL,
    "codeHash" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "clientId" TEXT NOT NULL,
    "redirectUri" TEXT NOT NULL,
    "codeChallenge" TEXT NOT NULL,
    "scopes" TEXT[],
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "usedAt" TIMESTAMP(3),
    "apiKeyId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ConnectCode_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "ConnectCode_codeHash_key" ON "ConnectCode"("codeHash");

-- CreateIndex
CREATE INDEX "ConnectCode_expiresAt_idx" ON "ConnectCode"("expiresAt");
