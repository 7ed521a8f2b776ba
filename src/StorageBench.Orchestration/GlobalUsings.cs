// The engine's layers and the Durable API, which nearly every orchestrator and activity reads: named once here, not at the top of each file.
global using Microsoft.DurableTask;
global using StorageBench.Engine.Planning;
global using StorageBench.Engine.ResultsStore;
global using StorageBench.Engine.Spec;
global using StorageBench.Engine.Statistics;
global using StorageBench.Engine.Workloads;
