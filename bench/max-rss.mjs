/**
 * Preloaded (`node --import ./bench/max-rss.mjs …`) into each process the session bench times: at
 * exit it writes the process's peak resident memory (`process.resourceUsage().maxRSS`, KiB) to stderr
 * as one last line, `@@max-rss <KiB>`. It changes nothing else in the process.
 */
import { writeSync } from "node:fs";

process.on("exit", () => {
	writeSync(2, `\n@@max-rss ${process.resourceUsage().maxRSS}\n`);
});
