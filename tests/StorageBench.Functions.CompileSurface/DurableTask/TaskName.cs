// Mirrors Microsoft.DurableTask.Abstractions (1.x, via Microsoft.Azure.Functions.Worker.Extensions.DurableTask 1.16.5): namespace Microsoft.DurableTask.
// Transcribed from: microsoft/durabletask-dotnet src/Abstractions/TaskName.cs (commit 380c622f). COMPILE-ONLY: only the implicit
// conversion from string the app relies on (it passes names as strings).
using StorageBench.Functions.CompileSurface;

namespace Microsoft.DurableTask;

public readonly struct TaskName
{
    public static implicit operator TaskName(string value) => throw new NotSupportedException(CompileOnly.Message);
}
