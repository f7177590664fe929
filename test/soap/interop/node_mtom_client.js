// Sends an MTOM request with Node's `soap` package (npm, in tmp/node): the
// envelope as the root part, a binary attachment as a part of its own,
// referenced by <xop:Include href="cid:..."/>.
// Usage: node node_mtom_client.js SOAP_MODULE_DIR URL SIZE
// Prints one JSON object: what the service answered and the attachment's SHA-256.
"use strict";

const crypto = require("crypto");
const soap = require(process.argv[2]);
const url = process.argv[3];
const size = Number(process.argv[4]);

async function main() {
  const client = await soap.createClientAsync(url + "?wsdl", { endpoint: url });
  const body = Buffer.alloc(size);
  for (let i = 0; i < size; i++) body[i] = (i * 7 + 3) & 0xff; // every byte value, no text
  const include = '<xop:Include xmlns:xop="http://www.w3.org/2004/08/xop/include" href="cid:photo%40example"/>';
  const [result] = await client.uploadAsync(
    { name: "photo.bin", data: { $xml: include } },
    { forceMTOM: true, attachments: [{ mimetype: "application/octet-stream", contentId: "photo@example", name: "photo.bin", body }] }
  );
  console.log(JSON.stringify({ result: result.uploadReturn, sha256: crypto.createHash("sha256").update(body).digest("hex") }));
}

main().catch((error) => {
  console.log(JSON.stringify({ error: String(error && error.message ? error.message : error) }));
  process.exit(1);
});
