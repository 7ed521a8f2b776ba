// Not a mirror of any package: the one message every member of this compile-only surface throws.
namespace StorageBench.Functions.CompileSurface;

internal static class CompileOnly
{
    public const string Message = "COMPILE-ONLY surface (tests/StorageBench.Functions.CompileSurface): never run it; the Function App runs on the real packages.";
}
