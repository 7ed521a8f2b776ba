// The workload rooms' namespaces, which the sections' specs and floor answers name throughout.
global using StorageBench.Engine.Workloads.BlobDownload;
global using StorageBench.Engine.Workloads.BlobUpload;
global using StorageBench.Engine.Workloads.PageBlobUpload;
global using StorageBench.Engine.Workloads.TableInsert;
