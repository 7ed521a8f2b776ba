// Preloaded (node --require) into every Azurite this tool starts. As it loads, Azurite requires modules it then uses only
// in modes this tool never starts it in or for requests the tool never sends; each is handed over as a stand-in that loads
// the real module on first use (times on a quiet 2-core machine, of a start that took 0.75 s with all of them):
// - applicationinsights, its telemetry SDK (about 0.4 s), used only with telemetry on: every Azurite here has --disableTelemetry;
// - its SQL blob server, which loads sequelize (0.07 s), used only when AZURITE_DB names a database;
// - axios (0.05 s), used only to copy a blob from a URL; jsonwebtoken (0.02 s), used only for OAuth bearer tokens.
// Compiled TypeScript reads a module's __esModule flag as it imports it: each stand-in answers it as the real module would.
"use strict";
const Module = require("module");
const load = Module._load;
const blobServerFactory = /[\\/]azurite[\\/]dist[\\/]src[\\/]blob[\\/]BlobServerFactory\.js$/;
const deferred = (request, parent) =>
  request === "applicationinsights" ? { esModule: true }
  : request === "axios" || request === "jsonwebtoken" ? { esModule: undefined }
  : request === "./SqlBlobServer" && blobServerFactory.test(parent?.filename ?? "") ? { esModule: true }
  : null;
Module._load = function (request, parent, isMain) {
  const how = deferred(request, parent);
  if (!how) {
    return load.apply(this, arguments);
  }
  let real;
  const module = () => (real ??= load.call(this, request, parent, isMain));
  return new Proxy({}, {
    get: (_, name) => (name === "__esModule" ? how.esModule : module()[name]),
    has: (_, name) => name in module(),
    ownKeys: () => Reflect.ownKeys(module()),
    getOwnPropertyDescriptor: (_, name) => {
      const d = Object.getOwnPropertyDescriptor(module(), name);
      return d && { ...d, configurable: true };
    },
  });
};
