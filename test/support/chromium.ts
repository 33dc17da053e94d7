/// <reference lib="dom" />
/**
 * Headless Chromium for the report's browser tests: Debian's `chromium` (installed with apt-get when
 * it is missing and the tests run as root, as on a fresh CI machine), driven by playwright-core with
 * a fresh profile, no network services, and every request recorded.
 */
import { spawnSync } from "node:child_process";
import { existsSync, mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { type BrowserContext, chromium, type Page } from "playwright-core";

export const CHROMIUM = process.env.CHROMIUM_PATH ?? "/usr/bin/chromium";

const FLAGS = [
	"--headless",
	"--no-sandbox",
	"--disable-gpu",
	"--disable-quic",
	"--no-first-run",
	"--disable-background-networking",
	"--disable-component-update",
	"--disable-sync",
];

/** Why the browser tests cannot run, or `undefined` when Chromium is there (installing it if it can). */
export function chromiumMissing(): string | undefined {
	if (existsSync(CHROMIUM)) return undefined;
	if (process.platform !== "linux" || process.getuid?.() !== 0 || !existsSync("/usr/bin/apt-get")) {
		return `${CHROMIUM} is missing and cannot be installed here (install Debian's chromium package: apt-get install chromium)`;
	}
	const install = spawnSync(
		"sh",
		["-c", "apt-get update && DEBIAN_FRONTEND=noninteractive apt-get install -y chromium"],
		{
			stdio: "ignore",
			timeout: 900_000,
		},
	);
	if (existsSync(CHROMIUM)) return undefined;
	return `${CHROMIUM} is missing and apt-get install chromium failed (exit ${install.status ?? install.signal})`;
}

/** A fresh browser profile, with `prefers-color-scheme` as asked. */
export async function launch(options: { bypassCSP?: boolean } = {}): Promise<BrowserContext> {
	return chromium.launchPersistentContext(mkdtempSync(join(tmpdir(), "report-chromium-")), {
		executablePath: CHROMIUM,
		headless: true,
		args: FLAGS,
		viewport: { width: 1400, height: 1000 },
		bypassCSP: options.bypassCSP ?? false,
		offline: true,
	});
}

/** A report opened from `file://`, with what it logged and every request it made. */
export interface OpenedReport {
	page: Page;
	url: string;
	/** Console errors and warnings, uncaught exceptions, and CSP violations. */
	problems: string[];
	/** Every URL requested, the page's own included (data: URIs are not requests). */
	requests: string[];
	/** Milliseconds from navigation until the page said it is drawn. */
	readyMs: number;
}

export async function openReport(context: BrowserContext, file: string): Promise<OpenedReport> {
	const page = await context.newPage();
	const url = pathToFileURL(file).href;
	const problems: string[] = [];
	const requests: string[] = [];
	page.on("console", (message) => {
		if (message.type() === "error" || message.type() === "warning")
			problems.push(`console ${message.type()}: ${message.text()}`);
	});
	page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
	page.on("request", (request) => requests.push(request.url()));
	await page.route(
		(target) => !target.href.startsWith("file:"),
		(route) => route.abort(),
	);
	await page.addInitScript(() => {
		const w = window as unknown as { __violations: string[] };
		w.__violations = [];
		document.addEventListener("securitypolicyviolation", (event) =>
			w.__violations.push(`${event.violatedDirective} ${event.blockedURI}`),
		);
	});
	const start = Date.now();
	await page.goto(url);
	await page.waitForSelector("body[data-ready=true]", { timeout: 120_000 });
	const readyMs = Date.now() - start;
	const violations = await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations);
	for (const violation of violations) problems.push(`CSP violation: ${violation}`);
	return { page, url, problems, requests, readyMs };
}
