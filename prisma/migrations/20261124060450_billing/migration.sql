-- CreateTable
CREATE TABLE "BillingAccount" (
    "accountId" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "balanceCents" INTEGER NOT NULL DEFAULT 0,
    "hasPaid" BOOLEAN NOT NULL DEFAULT false,
    "providerCustomerId" TEXT,
    "autoTopUpEnabled" BOOLEAN NOT NULL DEFAULT false,
    "autoTopUpThresholdCents" INTEGER,
    "autoTopUpAmountCents" INTEGER,
    "autoTopUpConsent" JSONB,
    "lowBalanceAlertEnabled" BOOLEAN NOT NULL DEFAULT false,
    "lowBalanceThresholdCents" INTEGER,
    "lowBalanceAlertedAt" TIMESTAMP(3),
    "details" JSONB,
    "retentionDeadline" TIMESTAMP(3),
    "monthlyCreditLeftCents" INTEGER NOT NULL DEFAULT 0,
    "monthlyCreditPeriodStart" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "BillingAccount_pkey" PRIMARY KEY ("accountId")
);

-- CreateTable
CREATE TABLE "LedgerEntry" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "balanceAfterCents" INTEGER NOT NULL,
    "key" TEXT NOT NULL,
    "chargeId" TEXT,
    "paymentId" TEXT,
    "description" TEXT NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "LedgerEntry_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Charge" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "recordingId" TEXT,
    "sessionId" TEXT,
    "kind" TEXT NOT NULL,
    "source" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "state" TEXT NOT NULL,
    "rateMicros" INTEGER NOT NULL,
    "minimumSeconds" INTEGER NOT NULL,
    "billedSeconds" DOUBLE PRECISION NOT NULL DEFAULT 0,
    "costCents" INTEGER NOT NULL DEFAULT 0,
    "openedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "settledAt" TIMESTAMP(3),

    CONSTRAINT "Charge_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "CreditHold" (
    "workId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "CreditHold_pkey" PRIMARY KEY ("workId")
);

-- CreateTable
CREATE TABLE "BillingAdmission" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "workId" TEXT NOT NULL,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "BillingAdmission_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Checkout" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "principalId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amountCents" INTEGER,
    "planId" TEXT,
    "interval" TEXT,
    "promoCode" TEXT,
    "providerId" TEXT,
    "url" TEXT,
    "expiresAt" TIMESTAMP(3),
    "completedAt" TIMESTAMP(3),
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Checkout_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Subscription" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "planId" TEXT NOT NULL,
    "interval" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "providerId" TEXT,
    "currentPeriodStart" TIMESTAMP(3) NOT NULL,
    "currentPeriodEnd" TIMESTAMP(3) NOT NULL,
    "cancelAtPeriodEnd" BOOLEAN NOT NULL DEFAULT false,
    "pendingInterval" TEXT,
    "paymentMethodId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updatedAt" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "Subscription_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PaymentMethod" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "providerId" TEXT NOT NULL,
    "brand" TEXT NOT NULL,
    "last4" TEXT NOT NULL,
    "expMonth" INTEGER,
    "expYear" INTEGER,
    "wallet" TEXT,
    "isDefault" BOOLEAN NOT NULL DEFAULT false,
    "declined" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PaymentMethod_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Payment" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "currency" TEXT NOT NULL,
    "providerId" TEXT,
    "document" TEXT NOT NULL,
    "businessPurchase" BOOLEAN NOT NULL DEFAULT false,
    "taxId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Payment_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "AutoTopUpAttempt" (
    "id" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "amountCents" INTEGER NOT NULL,
    "outcome" TEXT NOT NULL,
    "trigger" TEXT NOT NULL,
    "paymentId" TEXT,
    "message" TEXT,
    "at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "AutoTopUpAttempt_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "PromoRedemption" (
    "accountId" TEXT NOT NULL,
    "code" TEXT NOT NULL,
    "checkoutId" TEXT NOT NULL,
    "redeemedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "PromoRedemption_pkey" PRIMARY KEY ("accountId","code")
);

-- CreateTable
CREATE TABLE "ProviderEvent" (
    "id" TEXT NOT NULL,
    "type" TEXT NOT NULL,
    "receivedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "ProviderEvent_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "BillingAccount_providerCustomerId_key" ON "BillingAccount"("providerCustomerId");

-- CreateIndex
CREATE INDEX "LedgerEntry_accountId_createdAt_id_idx" ON "LedgerEntry"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "LedgerEntry_chargeId_idx" ON "LedgerEntry"("chargeId");

-- CreateIndex
CREATE UNIQUE INDEX "LedgerEntry_accountId_key_key" ON "LedgerEntry"("accountId", "key");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_recordingId_key" ON "Charge"("recordingId");

-- CreateIndex
CREATE UNIQUE INDEX "Charge_sessionId_key" ON "Charge"("sessionId");

-- CreateIndex
CREATE INDEX "Charge_accountId_openedAt_id_idx" ON "Charge"("accountId", "openedAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "Charge_state_idx" ON "Charge"("state");

-- CreateIndex
CREATE INDEX "CreditHold_accountId_idx" ON "CreditHold"("accountId");

-- CreateIndex
CREATE INDEX "BillingAdmission_accountId_at_idx" ON "BillingAdmission"("accountId", "at");

-- CreateIndex
CREATE UNIQUE INDEX "Checkout_providerId_key" ON "Checkout"("providerId");

-- CreateIndex
CREATE INDEX "Checkout_accountId_createdAt_idx" ON "Checkout"("accountId", "createdAt" DESC);

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_accountId_key" ON "Subscription"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "Subscription_providerId_key" ON "Subscription"("providerId");

-- CreateIndex
CREATE UNIQUE INDEX "PaymentMethod_providerId_key" ON "PaymentMethod"("providerId");

-- CreateIndex
CREATE INDEX "PaymentMethod_accountId_idx" ON "PaymentMethod"("accountId");

-- CreateIndex
CREATE UNIQUE INDEX "Payment_providerId_key" ON "Payment"("providerId");

-- CreateIndex
CREATE INDEX "Payment_accountId_createdAt_id_idx" ON "Payment"("accountId", "createdAt" DESC, "id" DESC);

-- CreateIndex
CREATE INDEX "AutoTopUpAttempt_accountId_at_idx" ON "AutoTopUpAttempt"("accountId", "at" DESC);

-- CreateIndex
CREATE INDEX "PromoRedemption_code_idx" ON "PromoRedemption"("code");
