// Node's soap package as a server (soap.listen) with people.wsdl, on 127.0.0.1:
// node server.js SOAP_MODULE PORT. What test/soap/interop/node_soap_test.rb calls.
"use strict";
const fs = require("fs");
const http = require("http");
const path = require("path");
const soap = require(process.argv[2]);

const service = {
  NodePeopleService: {
    NodePeoplePort: {
      people(args, callback, headers) {
        const auth = headers && headers.AuthHeader;
        const caller = auth && auth.password === "secret" ? auth.user : "stranger";
        if (args.name === "nobody") {
          throw { Fault: { faultcode: "soap:Client", faultstring: "no such person: " + args.name } };
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
  soap.listen(server, "/people", service, fs.readFileSync(path.join(__dirname, "people.wsdl"), "utf8"));
});
