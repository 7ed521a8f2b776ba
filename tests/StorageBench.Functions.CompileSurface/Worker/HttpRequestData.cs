// Mirrors Microsoft.Azure.Functions.Worker.Core 2.51.0 (via Microsoft.Azure.Functions.Worker 2.51.0): namespace Microsoft.Azure.Functions.Worker.Http.
// Transcribed from: the parameter type of DurableTaskClientExtensions.CreateHttpManagementPayload (Azure/azure-functions-durable-extension
// src/Worker.Extensions.DurableTask/DurableTaskClientExtensions.cs, "using Microsoft.Azure.Functions.Worker.Http"). COMPILE-ONLY: the app
// never passes one (ASP.NET Core integration: HttpRequest), so the type has no members here.
namespace Microsoft.Azure.Functions.Worker.Http;

public abstract class HttpRequestData
{
}
