-- Trigram matching for search (literal and misspelt words): the embedded database loads the contrib module.
CREATE EXTENSION IF NOT EXISTS pg_trgm;

-- CreateTable
CREATE TABLE "SearchSentence" (
    "recordingId" TEXT NOT NULL,
    "sentenceId" TEXT NOT NULL,
    "accountId" TEXT NOT NULL,
    "transcriptionId" TEXT NOT NULL,
    "firstSeq" INTEGER NOT NULL,
    "firstWord" INTEGER NOT NULL,
    "speaker" INTEGER NOT NULL,
    "start" DOUBLE PRECISION NOT NULL,
    "end" DOUBLE PRECISION NOT NULL,
    "text" TEXT NOT NULL,
    "confidence" DOUBLE PRECISION,
    "language" TEXT,
    "tsv" tsvector NOT NULL,

    CONSTRAINT "SearchSentence_pkey" PRIMARY KEY ("recordingId","sentenceId")
);

-- CreateTable
CREATE TABLE "SearchIndexState" (
    "recordingId" TEXT NOT NULL,
    "eventSeq" INTEGER NOT NULL,
    "indexedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "SearchIndexState_pkey" PRIMARY KEY ("recordingId")
);

-- CreateIndex
CREATE INDEX "SearchSentence_accountId_idx" ON "SearchSentence"("accountId");

-- CreateIndex
CREATE INDEX "SearchSentence_tsv_idx" ON "SearchSentence" USING GIN ("tsv");

-- CreateIndex
CREATE INDEX "SearchSentence_text_idx" ON "SearchSentence" USING GIN ("text" gin_trgm_ops);

-- AddForeignKey
ALTER TABLE "SearchSentence" ADD CONSTRAINT "SearchSentence_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "SearchIndexState" ADD CONSTRAINT "SearchIndexState_recordingId_fkey" FOREIGN KEY ("recordingId") REFERENCES "Recording"("id") ON DELETE CASCADE ON UPDATE CASCADE;
