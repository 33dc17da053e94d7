/**
 * Realistic secrets, as a coding agent's history shows them (an `.env` read, a `printenv`, a config
 * file, a connection string in a log), and a clean corpus of ordinary tool output that holds none.
 * Values are made from a seeded generator in the formats the issuers use, so the suite is the same on
 * every run; each `value` is the part that must never reach the model.
 */
import { mulberry32 as generator } from "./random.js";

const ALNUM = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const UPPER_DIGITS = "ABCDEFGHIJKLMNOPQRSTUVWXYZ234567";
const HEX = "0123456789abcdef";
const BASE64 = `${ALNUM}+/`;
const LETTERS = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
const DIGITS = "0123456789";
const URL_SAFE = `${ALNUM}_-`;

function maker(seed: number) {
	const next = generator(seed);
	const pick = (alphabet: string, length: number): string => {
		let out = "";
		for (let i = 0; i < length; i++) out += alphabet[Math.floor(next() * alphabet.length)];
		return out;
	};
	return { pick, next };
}

/** A 1Password service account token's payload: base64 JSON, padded so that it ends with `fQ==`, as issued. */
function onePasswordToken(pick: (alphabet: string, length: number) => string): string {
	let json = JSON.stringify({
		signInAddress: "acme.1password.com",
		userAuth: { method: "SRPg-4096", alg: "PBES2g-HS256", iterations: 650000, salt: pick(ALNUM, 22) },
		email: `${pick("abcdefghijklmnopqrstuvwxyz", 12)}@1passwordserviceaccounts.com`,
		srpX: pick(HEX, 64),
		secretKey: `A3-${pick(UPPER_DIGITS, 6)}-${pick(UPPER_DIGITS, 11)}`,
		deviceUuid: pick("abcdefghijklmnopqrstuvwxyz0123456789", 26),
	});
	while (json.length % 3 !== 1) json = `${json.slice(0, -1)} }`;
	return Buffer.from(json).toString("base64");
}

/** One planted secret: its kind, the text it appears in, and the value that must be gone. */
export interface PlantedSecret {
	readonly kind: string;
	readonly text: string;
	readonly value: string;
}

function secretsOfSeed(seed: number): PlantedSecret[] {
	const { pick } = maker(seed);
	const awsSecret = `${pick(`${ALNUM}/+`, 39)}${pick(ALNUM, 1)}`;
	const awsId = `AKIA${pick(UPPER_DIGITS, 16)}`;
	const ghp = `ghp_${pick(ALNUM, 36)}`;
	const gho = `gho_${pick(ALNUM, 36)}`;
	const pat = `github_pat_${pick(ALNUM, 22)}_${pick(ALNUM, 59)}`;
	const xoxb = `xoxb-${pick("0123456789", 12)}-${pick("0123456789", 13)}-${pick(ALNUM, 24)}`;
	const hook = `https://hooks.slack.com/services/T${pick(UPPER_DIGITS, 8)}/B${pick(UPPER_DIGITS, 10)}/${pick(ALNUM, 24)}`;
	const npmToken = `npm_${pick(ALNUM, 36)}`;
	const authToken = pick(`${HEX}-`, 36);
	const openai = `sk-proj-${pick(`${ALNUM}_-`, 74)}T3BlbkFJ${pick(`${ALNUM}_-`, 74)}`;
	const anthropic = `sk-ant-api03-${pick(`${ALNUM}_-`, 93)}AA`;
	const sendgrid = `SG.${pick(`${ALNUM}_`, 22)}.${pick(`${ALNUM}_`, 43)}`;
	const shopify = `shpat_${pick(HEX, 32)}`;
	const linear = `lin_api_${pick(ALNUM, 40)}`;
	const onePassword = `ops_${onePasswordToken(pick)}`;
	const pemBody = `MIIEow${pick(BASE64, 58)}\n${pick(BASE64, 64)}\n${pick(BASE64, 64)}\n${pick(BASE64, 40)}`;
	const dbPassword = `Zq${pick(ALNUM, 14)}`;
	const basicPassword = `Tx${pick(ALNUM, 12)}`;
	const mongoPassword = `Mg${pick(ALNUM, 16)}`;
	// Kinds secretlint 13 reports and 11 does not.
	const stripeLive = `sk_live_51${pick(ALNUM, 97)}`;
	const stripeRestricted = `rk_live_51${pick(ALNUM, 60)}`;
	const gitlab = `glpat-${pick(URL_SAFE, 20)}`;
	const huggingFace = `hf_${pick(LETTERS, 34)}`;
	const groq = `gsk_${pick(ALNUM, 52)}`;
	const notion = `ntn_${pick(DIGITS, 11)}${pick(ALNUM, 35)}`;
	const docker = `dckr_pat_${pick(URL_SAFE, 27)}`;
	const figma = `figd_${pick(URL_SAFE, 40)}`;
	const vercel = `vcp_${pick(ALNUM, 24)}`;
	const databricks = `dapi${pick(HEX, 32)}`;
	const grafanaCloud = `glc_${Buffer.from(
		JSON.stringify({
			o: pick(DIGITS, 6),
			n: `stack-${pick(DIGITS, 6)}-hm-read`,
			k: pick(ALNUM, 24),
			m: { r: "prod-eu-west-2" },
		}),
	)
		.toString("base64")
		.replace(/=+$/, "")}`;
	const grafanaServiceAccount = `glsa_${pick(ALNUM, 32)}_${pick(HEX, 8)}`;
	const tailscale = `tskey-auth-k${pick(ALNUM, 16)}-${pick(ALNUM, 33)}`;
	const vault = `hvs.CAESI${pick(URL_SAFE, 100)}`;
	const cloudflare = `cfut_${pick(ALNUM, 40)}${pick(HEX, 8)}`;
	const appInstallation = `ghs_${pick(DIGITS, 7)}_eyJ${pick(URL_SAFE, 40)}.eyJ${pick(URL_SAFE, 120)}.${pick(URL_SAFE, 43)}`;
	const mysqlPassword = `My${pick(ALNUM, 14)}`;
	return [
		{ kind: "aws-secret-access-key", text: `export AWS_SECRET_ACCESS_KEY=${awsSecret}`, value: awsSecret },
		{ kind: "aws-access-key-id", text: `aws_access_key_id = ${awsId}`, value: awsId },
		{ kind: "github-classic-token", text: `GITHUB_TOKEN=${ghp}`, value: ghp },
		{ kind: "github-oauth-token", text: `"token": "${gho}"`, value: gho },
		{ kind: "github-fine-grained-token", text: `gh auth login --with-token <<< ${pat}`, value: pat },
		{ kind: "slack-bot-token", text: `SLACK_BOT_TOKEN=${xoxb}`, value: xoxb },
		{ kind: "slack-webhook", text: `curl -X POST ${hook} -d '{"text":"deployed"}'`, value: hook },
		{ kind: "npm-access-token", text: `NPM_TOKEN=${npmToken} npm publish`, value: npmToken },
		{ kind: "npm-auth-token", text: `//registry.npmjs.org/:_authToken=${authToken}`, value: authToken },
		{ kind: "openai-key", text: `OPENAI_API_KEY=${openai}`, value: openai },
		{ kind: "anthropic-key", text: `ANTHROPIC_API_KEY="${anthropic}"`, value: anthropic },
		{ kind: "sendgrid-key", text: `SENDGRID_API_KEY=${sendgrid}`, value: sendgrid },
		{ kind: "shopify-token", text: `shopify.accessToken = "${shopify}";`, value: shopify },
		{ kind: "linear-key", text: `LINEAR_API_KEY=${linear}`, value: linear },
		{ kind: "1password-service-account", text: `OP_SERVICE_ACCOUNT_TOKEN=${onePassword}`, value: onePassword },
		{
			kind: "private-key",
			text: `-----BEGIN RSA PRIVATE KEY-----\n${pemBody}\n-----END RSA PRIVATE KEY-----`,
			value: pemBody.split("\n")[1] as string,
		},
		{
			kind: "postgres-url",
			text: `DATABASE_URL=postgres://app_rw:${dbPassword}@db.internal.acme.io:5432/orders`,
			value: dbPassword,
		},
		{
			kind: "basic-auth-url",
			text: `git remote add origin https://deploy-bot:${basicPassword}@git.acme.io/team/repo.git`,
			value: basicPassword,
		},
		{
			kind: "mongodb-url",
			text: `MONGO_URI=mongodb+srv://svc_orders:${mongoPassword}@cluster0.ab1cd.mongodb.net/prod`,
			value: mongoPassword,
		},
		{ kind: "stripe-live-secret-key", text: `STRIPE_SECRET_KEY=${stripeLive}`, value: stripeLive },
		{ kind: "stripe-live-restricted-key", text: `stripe.api_key = "${stripeRestricted}"`, value: stripeRestricted },
		{ kind: "gitlab-token", text: `GITLAB_TOKEN=${gitlab} glab release create v1`, value: gitlab },
		{ kind: "hugging-face-token", text: `export HF_TOKEN=${huggingFace}`, value: huggingFace },
		{ kind: "groq-key", text: `GROQ_API_KEY=${groq}`, value: groq },
		{ kind: "notion-token", text: `NOTION_TOKEN="${notion}"`, value: notion },
		{ kind: "docker-token", text: `echo ${docker} | docker login -u acme --password-stdin`, value: docker },
		{ kind: "figma-token", text: `curl -H 'X-Figma-Token: ${figma}' https://api.figma.com/v1/me`, value: figma },
		{ kind: "vercel-token", text: `vercel deploy --token ${vercel}`, value: vercel },
		{ kind: "databricks-token", text: `DATABRICKS_TOKEN=${databricks}`, value: databricks },
		{ kind: "grafana-cloud-token", text: `GRAFANA_CLOUD_TOKEN=${grafanaCloud}`, value: grafanaCloud },
		{
			kind: "grafana-service-account-token",
			text: `Authorization: Bearer ${grafanaServiceAccount}`,
			value: grafanaServiceAccount,
		},
		{ kind: "tailscale-key", text: `tailscale up --auth-key=${tailscale}`, value: tailscale },
		{ kind: "vault-token", text: `VAULT_TOKEN=${vault} vault kv get secret/app`, value: vault },
		{ kind: "cloudflare-token", text: `CLOUDFLARE_API_TOKEN=${cloudflare}`, value: cloudflare },
		{
			kind: "github-app-installation-token",
			text: `git clone https://x-access-token:${appInstallation}@github.com/acme/app.git`,
			value: appInstallation,
		},
		{
			kind: "mysql-url",
			text: `MYSQL_URL=mysql://orders_rw:${mysqlPassword}@mysql.internal.acme.io:3306/orders`,
			value: mysqlPassword,
		},
	];
}

/** 108 secrets of 36 kinds (three of each, from different seeds). */
export const SECRETS: readonly PlantedSecret[] = Object.freeze([
	...secretsOfSeed(1),
	...secretsOfSeed(2),
	...secretsOfSeed(3),
]);

/** Ordinary tool output that holds no secret: git logs, lockfiles, UUIDs, hashes, base64 image data. */
export function cleanCorpus(): string[] {
	const { pick } = maker(42);
	const texts: string[] = [];
	for (let i = 0; i < 30; i++) {
		texts.push(
			`commit ${pick(HEX, 40)}\nAuthor: Dana Developer <dana@acme.io>\nDate:   Mon Nov ${10 + (i % 18)} 14:0${i % 10}:12 2026 +0100\n\n    fix(parser): handle empty input (#${1200 + i})\n\n    Co-authored-by: Sam <sam@acme.io>`,
		);
		texts.push(
			`"node_modules/pkg-${i}": {\n  "version": "1.${i}.0",\n  "resolved": "https://registry.npmjs.org/pkg-${i}/-/pkg-${i}-1.${i}.0.tgz",\n  "integrity": "sha512-${pick(BASE64, 86)}==",\n  "license": "MIT"\n}`,
		);
		const uuid = `${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-a${pick(HEX, 3)}-${pick(HEX, 12)}`;
		texts.push(
			`session ${uuid} started; request-id: ${pick(HEX, 8)}-${pick(HEX, 4)}-4${pick(HEX, 3)}-b${pick(HEX, 3)}-${pick(HEX, 12)}`,
		);
		texts.push(`data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAA${pick(BASE64, 600)}`);
		texts.push(`sha256:${pick(HEX, 64)}  dist/app-${i}.tar.gz\nETag: "${pick(HEX, 32)}"`);
	}
	texts.push("export AWS_REGION=eu-west-1\nexport NODE_ENV=production\nDATABASE_URL=postgres://localhost:5432/dev");
	// An npmrc line that reads the token from the environment: not a secret (secretlint allows it).
	texts.push(`//registry.npmjs.org/:_authToken=${"$"}{NPM_TOKEN}`);
	return texts;
}

/** Random base64 (an image's bytes). */
export function imageData(seed: number, length: number): string {
	return maker(seed).pick(BASE64, length);
}
