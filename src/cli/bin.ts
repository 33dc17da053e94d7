#!/usr/bin/env node
/**
 * The `convert-to-llm` executable: wires {@link main} to the process.
 */
import { main } from "./main.js";

// `convert-to-llm session.jsonl | head` closes the pipe early: that is not an error.
process.stdout.on("error", (error: NodeJS.ErrnoException) => {
	if (error.code === "EPIPE") process.exit(0);
	throw error;
});

const readStdin = async (): Promise<string> => {
	const chunks: Buffer[] = [];
	for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
	return Buffer.concat(chunks).toString("utf8");
};

main({
	argv: process.argv.slice(2),
	cwd: process.cwd(),
	env: process.env,
	stdout: process.stdout,
	stderr: process.stderr,
	readStdin,
}).then((code) => {
	process.exitCode = code;
});
