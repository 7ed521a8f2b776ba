// The layers nearly every command reads: named once here, not at the top of each file.
global using StorageBench.Engine.ResultsStore;
global using StorageBench.Engine.Spec;
global using StorageBench.Engine.Statistics;
global using StorageBench.Engine.Targets;
global using StorageBench.Orchestration;
global using StorageBench.TaskHub;
