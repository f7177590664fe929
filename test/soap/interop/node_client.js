// Calls the wirebind interop service with Node's `soap` package (npm, installed
// by .ci/run into tmp/node). Usage: node node_client.js SOAP_MODULE_DIR URL
// Prints one JSON object with what each call returned, for the Ruby test to check.
"use strict";

const soap = require(process.argv[2]);
const url = process.argv[3];

function items(value, name) {
  if (value == null) return [];
  if (Array.isArray(value)) return value;
  if (value[name] !== undefined) return [].concat(value[name]);
  return [value];
}

// rpc/encoded values come with their xsi:type: { attributes: {...}, $value: ... }
function v(value) {
  return value !== null && typeof value === "object" && "$value" in value ? value.$value : value;
}

async function main() {
  // A path ending in 12 is a SOAP 1.2 service: node-soap writes 1.2 envelopes and
  // application/soap+xml only with forceSoap12Headers, not from the WSDL's binding.
  const client = await soap.createClientAsync(url + "?wsdl", { endpoint: url, forceSoap12Headers: url.endsWith("12") });
  const out = {};

  const [login] = await client.loginAsync({ user: "ann", password: "secret" });
  out.login = v(login.loginReturn);

  const [found] = await client.getIssuesAsync({ token: "token-ann", jql: "project = OPS", max: 2 });
  out.issues = items(found.getIssuesReturn, "item").map((issue) => ({
    key: v(issue.key),
    summary: v(issue.summary),
    votes: Number(v(issue.votes)),
    created: new Date(v(issue.created)).toISOString(),
    versions: items(issue.versions, issue.versions && issue.versions.Version !== undefined ? "Version" : "item").map((version) => v(version.name)),
  }));

  const [created] = await client.createIssueAsync({ token: "t", issue: { summary: "From node", votes: 6 } });
  const issue = created.createIssueReturn;
  out.created = { key: v(issue.key), summary: v(issue.summary), votes: Number(v(issue.votes)) };

  try {
    await client.loginAsync({ user: "bob", password: "nope" });
    out.fault = null;
  } catch (error) {
    const fault = error.root && error.root.Envelope && error.root.Envelope.Body.Fault;
    // SOAP 1.1: faultcode and faultstring; 1.2: Code/Value and Reason/Text
    const code = fault && (fault.faultcode || (fault.Code && fault.Code.Value));
    const message = fault && (fault.faultstring || (fault.Reason && v(fault.Reason.Text)));
    out.fault = fault ? { code: code, message: message, status: error.response && error.response.status } : String(error);
  }
  process.stdout.write(JSON.stringify(out) + "\n");
}

main().catch((error) => {
  process.stderr.write(String(error && error.stack || error) + "\n");
  process.exit(1);
});
