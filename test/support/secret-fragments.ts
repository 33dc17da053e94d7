/**
 * fast-check arbitraries of text made of secret fragments: names rules match on, values and halves
 * of values from the planted-secret corpus, whitespace and filler, so that generated strings hold
 * secrets whole, cut, next to their names, or across the boundary between two strings.
 */
import fc from "fast-check";
import { SECRETS } from "./secret-corpus.js";

const NAMES = [
	"AWS_SECRET_ACCESS_KEY=",
	"aws_secret_access_key:",
	"export AWS_SECRET_ACCESS_KEY =",
	"//registry.npmjs.org/:_authToken=",
	"-----BEGIN RSA PRIVATE KEY-----\n",
	"\n-----END RSA PRIVATE KEY-----",
	"postgres://app:",
	"@db.internal:5432/app",
	"# secretlint-disable\n",
];
const FILLER = ["", " ", "\n", "\n\n", "\t", "ok", "see: ", "\u200d", "\ufeff", '"', "="];

/** One fragment: a name, a corpus value (whole or a half), a planted text, whitespace or filler. */
export const fragment: fc.Arbitrary<string> = fc.oneof(
	fc.constantFrom(...NAMES),
	fc.constantFrom(...FILLER),
	fc.constantFrom(...SECRETS.map((s) => s.value)),
	fc.constantFrom(...SECRETS.map((s) => s.text)),
	fc
		.tuple(fc.constantFrom(...SECRETS.map((s) => s.value)), fc.boolean())
		.map(([value, first]) => (first ? value.slice(0, value.length >> 1) : value.slice(value.length >> 1))),
);

/** A text of one to four fragments. */
export const fragmentText: fc.Arbitrary<string> = fc
	.array(fragment, { minLength: 1, maxLength: 4 })
	.map((parts) => parts.join(""));
