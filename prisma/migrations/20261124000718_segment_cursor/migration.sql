-- AlterTable
ALTER TABLE "Segment" ADD COLUMN     "cursor" INTEGER NOT NULL DEFAULT -1;

-- CreateIndex
CREATE INDEX "Segment_recordingId_cursor_idx" ON "Segment"("recordingId", "cursor");

-- Backfill: a stored segment's cursor is the log position of the newest frame about it (its commit or an amendment).
UPDATE "Segment" AS s
SET "cursor" = latest.seq
FROM (
  SELECT e."recordingId", (e.payload->'segment'->>'seq')::int AS segment_seq, MAX(e.seq) AS seq
  FROM "RecordingEvent" AS e
  WHERE e.type IN ('transcript.committed', 'transcript.amended') AND e.payload->'segment'->>'seq' IS NOT NULL
  GROUP BY e."recordingId", (e.payload->'segment'->>'seq')::int
) AS latest
WHERE latest."recordingId" = s."recordingId" AND latest.segment_seq = s.seq;
