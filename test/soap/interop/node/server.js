// Node's soap package as a server (soap.listen) with people.wsdl, on 127.0.0.1:
// node server.js SOAP_MODULE PORT. /people is SOAP 1.1, /people12 SOAP 1.2. What test/soap/interop/node_soap_test.rb calls.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const soap = require(process.argv[2]);

const service = {
  NodePeopleService: {
    NodePeoplePort: {
      people(args, callback, headers, request) {
        const auth = headers && headers.AuthHeader;
        const caller = auth && auth.password === "secret" ? auth.user : "stranger";
        if (args.name === "nobody") {
          const reason = "no such person: " + args.name;
          // SOAP 1.2's fault has Code/Value and Reason/Text (node-soap writes what it is given)
          throw request.url.startsWith("/people12")
            ? { Fault: { Code: { Value: "soap:Sender" }, Reason: { Text: reason } } }
            : { Fault: { faultcode: "soap:Client", faultstring: reason } };
        }
        const person = [];
        for (let n = 1; n <= Number(args.count); n++) {
          // a null nickname (asked for by name "nil"): node-soap writes xsi:nil
          person.push({ name: args.name + " " + n, age: n, nickname: args.name === "nil" ? null : "nick ✓" + n });
        }
        return { caller, person };
      },
    },
  },
};

const server = http.createServer((request, response) => {
  response.statusCode = 404;
  response.end();
});
server.listen(Number(process.argv[3]), "127.0.0.1", () => {
  const wsdl = fs.readFileSync(path.join(__dirname, "people.wsdl"), "utf8");
  soap.listen(server, "/people", service, wsdl);
  // The same over SOAP 1.2: a soap12 binding, and 1.2 envelopes (forceSoap12Headers)
  const wsdl12 = wsdl.replace(/http:\/\/schemas\.xmlsoap\.org\/wsdl\/soap\//g, "http://schemas.xmlsoap.org/wsdl/soap12/");
  soap.listen(server, { path: "/people12", services: service, xml: wsdl12, forceSoap12Headers: true });
});
