/** The local files commands read (an upload, audio to stream): refused before anything is sent when they cannot be read. */
import fs from 'node:fs/promises';
import { CliError, usageError } from './errors.js';

/** A local file's path, refused with a usage error when it cannot be read (missing, a folder, no permission). */
export async function readableFile(file: string): Promise<string> {
  try {
    const stat = await fs.stat(file);
    if (!stat.isFile()) throw usageError(`${file} is not a file.`);
    await fs.access(file, fs.constants.R_OK);
  } catch (error) {
    if (error instanceof CliError) throw error;
    throw usageError(`Cannot read ${file}: `
      + `${(error as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (error as Error).message}.`);
  }
  return file;
}
