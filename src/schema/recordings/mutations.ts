// Job moves of a file recording (start, retry) live with the transcriptions module, whose service owns jobs.
export {};
