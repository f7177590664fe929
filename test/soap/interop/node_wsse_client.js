// Calls a wirebind service with node-soap's WSSecurityCert (npm soap, in tmp/node):
// an X.509 BinarySecurityToken and a signature over Body and Timestamp made by xml-crypto.
// Usage: node node_wsse_client.js SOAP_MODULE_DIR URL KEY_PEM CERT_PEM
// Prints one JSON object: {"result": ...} or {"fault": {"code": ..., "message": ...}}.
"use strict";

const fs = require("fs");
const soap = require(process.argv[2]);
const [url, keyFile, certFile] = process.argv.slice(3);

async function main() {
  const client = await soap.createClientAsync(url + "?wsdl", { endpoint: url });
  client.setSecurity(new soap.WSSecurityCert(fs.readFileSync(keyFile), fs.readFileSync(certFile), ""));
  try {
    const [result] = await client.whoAmIAsync({ caller: "node" });
    console.log(JSON.stringify({ result: result.whoAmIReturn }));
  } catch (error) {
    const fault = error.root && error.root.Envelope && error.root.Envelope.Body && error.root.Envelope.Body.Fault;
    if (!fault) throw error;
    console.log(JSON.stringify({ fault: { code: fault.faultcode, message: fault.faultstring } }));
  }
}

main().catch((error) => {
  console.log(JSON.stringify({ error: String(error && error.message ? error.message : error) }));
  process.exit(1);
});
