/**
 * Where a report is written, safely: never over a file the run reads (the session, by its path, a
 * symlink or a hard link to it: same device and inode), and never half: the page goes to a new file
 * beside the target, which replaces the target only once it is complete. The target is checked
 * before anything is written and again just before it is replaced.
 */
import { randomBytes } from "node:crypto";
import {
	closeSync,
	existsSync,
	fstatSync,
	openSync,
	realpathSync,
	renameSync,
	statSync,
	unlinkSync,
	writeSync,
} from "node:fs";
import { basename, dirname, join } from "node:path";
import type { PageOut } from "./report-writer.js";

/** A file the run reads: the name to say, and its device and inode. */
export interface ReadFile {
	name: string;
	dev: number;
	ino: number;
}

/** A report that would overwrite a file the run reads. */
export class ReportPathError extends Error {
	override readonly name = "ReportPathError";
}

/** The identity of the file at `path` (symlinks followed), or `undefined` when nothing is there. */
export function readFile(path: string, name = path): ReadFile | undefined {
	try {
		const stats = statSync(path);
		return { name, dev: stats.dev, ino: stats.ino };
	} catch {
		return undefined;
	}
}

/** The identity of an open descriptor's file (standard input redirected from a file), or `undefined` for a pipe or a terminal. */
export function readDescriptor(fd: number, name: string): ReadFile | undefined {
	try {
		const stats = fstatSync(fd);
		return stats.isFile() ? { name, dev: stats.dev, ino: stats.ino } : undefined;
	} catch {
		return undefined;
	}
}

/**
 * Throws a {@link ReportPathError} when `path` is (or leads to) one of `reads`: the same device and
 * inode, whatever the path's spelling, symlinks and hard links included.
 */
export function refuseRead(path: string, reads: readonly ReadFile[]): void {
	const target = readFile(path);
	if (target === undefined) return;
	for (const read of reads) {
		if (read.dev === target.dev && read.ino === target.ino) {
			throw new ReportPathError(
				`refusing to write the report to "${path}": that is the file the report is made from ("${read.name}"), and writing it would destroy it. Name another file for the report.`,
			);
		}
	}
}

/**
 * Throws a {@link ReportPathError} when the descriptor the report goes to (standard output, `fd` 1)
 * is a file the run reads (`convert-to-llm --html=- s.jsonl >> s.jsonl`).
 */
export function refuseReadOutput(fd: number, reads: readonly ReadFile[]): void {
	const out = readDescriptor(fd, "stdout");
	if (out === undefined) return;
	for (const read of reads) {
		if (read.dev === out.dev && read.ino === out.ino) {
			throw new ReportPathError(
				`refusing to write the report to standard output: it is the file the report is made from ("${read.name}"), and writing it would destroy it. Send the report elsewhere.`,
			);
		}
	}
}

/**
 * Writes a report to `path` with `write`, through a new file beside it that replaces it when
 * complete (a symlink at `path` keeps pointing where it did: its target is replaced); returns the
 * bytes written. Refuses a path that is one of `reads` ({@link refuseRead}) before writing anything;
 * on any failure the new file is removed and `path` is left as it was.
 */
export function writeReportFile(
	path: string,
	reads: readonly ReadFile[],
	write: (out: PageOut) => void,
): { bytes: number } {
	refuseRead(path, reads);
	const real = existsSync(path) ? realpathSync(path) : path;
	const temp = join(dirname(real), `.${basename(real)}.${process.pid}-${randomBytes(4).toString("hex")}.tmp`);
	const fd = openSync(temp, "wx", 0o666);
	let open = true;
	let bytes = 0;
	try {
		write({
			write(text) {
				const buffer = Buffer.from(text, "utf8");
				for (let at = 0; at < buffer.length; ) at += writeSync(fd, buffer, at);
				bytes += buffer.length;
			},
		});
		closeSync(fd);
		open = false;
		// Checked again: the target may have become a link to the session while the page was written.
		refuseRead(real, reads);
		renameSync(temp, real);
		return { bytes };
	} catch (error) {
		if (open) closeSync(fd);
		try {
			unlinkSync(temp);
		} catch {
			// Already gone.
		}
		throw error;
	}
}
