// The engine's own layers, which nearly every room and engine file reads: named once here, not at the top of each file.
global using Microsoft.Extensions.Logging;
global using StorageBench.Engine.Capacity;
global using StorageBench.Engine.Cost;
global using StorageBench.Engine.Measurement;
global using StorageBench.Engine.Planning;
global using StorageBench.Engine.Spec;
global using StorageBench.Engine.Statistics;
global using StorageBench.Engine.Targets;
global using StorageBench.Engine.Verification;
global using StorageBench.Engine.Workloads;
global using StorageBench.Engine.Workloads.Lean;
