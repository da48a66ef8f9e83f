/**
 * The broadcasts a transcription feeds, as its row stores them (`Transcription.broadcastIds`, a JSON array): read
 * by recordings (whose log frames reach those broadcasts), listeners and broadcasts alike.
 */
export function broadcastIdsOf(transcription: { broadcastIds: unknown }): string[] {
  return Array.isArray(transcription.broadcastIds) ? (transcription.broadcastIds as unknown[]).filter(
    (id): id is string => typeof id === 'string',
  ) : [];
}
