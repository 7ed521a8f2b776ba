// Preloaded (node --require) into every Azurite this tool starts. As it loads, Azurite requires modules it then uses only
// in modes this tool never starts it in; each is handed over as a stand-in that loads the real module on first use:
// - its telemetry SDK, applicationinsights (about 0.4 s of a 0.75-s start on a quiet 2-core machine), used only with
//   telemetry on: every Azurite here runs with --disableTelemetry;
// - its SQL blob server, which loads sequelize (about 0.07 s), used only when AZURITE_DB names a database.
"use strict";
const Module = require("module");
const load = Module._load;
const sqlBlobServer = /[\\/]azurite[\\/]dist[\\/]src[\\/]blob[\\/]BlobServerFactory\.js$/;
// Which requires are deferred, and whether the module is compiled TypeScript (its __esModule flag is read as it is imported).
const deferred = (request, parent) =>
  request === "applicationinsights" ? { esModule: false }
  : request === "./SqlBlobServer" && sqlBlobServer.test(parent?.filename ?? "") ? { esModule: true }
  : null;
Module._load = function (request, parent, isMain) {
  const how = deferred(request, parent);
  if (!how) {
    return load.apply(this, arguments);
  }
  let real;
  const module = () => (real ??= load.call(this, request, parent, isMain));
  return new Proxy({}, {
    get: (_, name) => (how.esModule && name === "__esModule" ? true : module()[name]),
    has: (_, name) => name in module(),
    ownKeys: () => Reflect.ownKeys(module()),
    getOwnPropertyDescriptor: (_, name) => {
      const d = Object.getOwnPropertyDescriptor(module(), name);
      return d && { ...d, configurable: true };
    },
  });
};
