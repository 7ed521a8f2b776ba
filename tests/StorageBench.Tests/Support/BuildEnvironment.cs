using System.Diagnostics;

namespace StorageBench.Tests;

/// <summary>For tests that run dotnet builds of this repository: one at a time, and without the test host's MSBuild settings.</summary>
internal static class BuildEnvironment
{
    /// <summary>The test host's own MSBuild settings must not leak into a build it starts.</summary>
    public static void Clean(ProcessStartInfo psi)
    {
        foreach (string name in new[] { "MSBUILD_EXE_PATH", "MSBuildExtensionsPath", "MSBuildSDKsPath", "MSBuildLoadMicrosoftTargetsReadOnly" })
        {
            psi.Environment.Remove(name);
        }
    }
}

/// <summary>Test classes that build projects of this repository (two MSBuilds on one project at once can collide).</summary>
[CollectionDefinition(Name)]
public sealed class BuildsCollection
{
    public const string Name = "Builds the repository";
}
