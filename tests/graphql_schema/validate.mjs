// Validates GraphQL documents against GitHub's published schema (@octokit/graphql-schema).
// Input on stdin: a JSON object {name: document}, as `convfail crawl --graphql-queries` prints.
// Prints one line per document; exits 1 when any is invalid (a query real GitHub would reject).
import { readFileSync } from "node:fs";
import { validate } from "@octokit/graphql-schema";

const docs = JSON.parse(readFileSync(0, "utf8"));
let bad = 0;
const names = Object.keys(docs);
if (names.length === 0) {
  console.log("no documents given");
  process.exit(1);
}
for (const name of names) {
  let errors;
  try {
    errors = validate(docs[name]);  // parse + validate against the schema's JSON introspection
  } catch (e) {
    errors = [e];
  }
  if (errors.length) {
    bad++;
    for (const e of errors) console.log(`${name}: INVALID: ${e.message}`);
  } else {
    console.log(`${name}: valid`);
  }
}
process.exit(bad ? 1 : 0);
