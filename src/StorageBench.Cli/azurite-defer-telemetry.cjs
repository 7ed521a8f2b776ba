// Preloaded (node --require) into every Azurite this tool starts, all of them with --disableTelemetry.
// Azurite requires its telemetry SDK, applicationinsights, as it loads (about half of its start: 0.4 of 0.75 s on a
// quiet 2-core machine) and calls it only when telemetry is on. This hands Azurite the real module, loaded on first use.
"use strict";
const Module = require("module");
const load = Module._load;
Module._load = function (request, parent, isMain) {
  if (request !== "applicationinsights") {
    return load.apply(this, arguments);
  }
  let real;
  const module = () => (real ??= load.call(this, request, parent, isMain));
  return new Proxy({}, {
    get: (_, name) => module()[name],
    has: (_, name) => name in module(),
    ownKeys: () => Reflect.ownKeys(module()),
    getOwnPropertyDescriptor: (_, name) => {
      const d = Object.getOwnPropertyDescriptor(module(), name);
      return d && { ...d, configurable: true };
    },
  });
};
