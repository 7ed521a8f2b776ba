using System.Security.Cryptography;
using CsCheck;
using StorageBench.Cli;
using StorageBench.Engine.Targets;

namespace StorageBench.Tests;

/// <summary>
/// Keys stay off the command line and out of output (issue 43): every connection string option has a file twin, a key
/// given on the command line itself gets a one-line warning, and no echo of a connection string or an endpoint shows a
/// key or a SAS signature (<see cref="StorageTarget.Redact"/>, the one redaction).
/// </summary>
[Trait("Category", "Unit")]
public class SecretsOffTheCommandLineTests
{
    private static readonly Gen<string> Secret = Gen.Byte.Array[16, 64].Select(Convert.ToBase64String);

    [Fact]
    public void NoSasParameterValueOrKeySurvivesRedactionWhereverItSitsInAUrlOrAConnectionString()
    {
        Gen.Select(Secret, Secret, Gen.OneOf<string>("sig", "SIG", "se", "sp", "skoid"), Gen.OneOf<string>("?", "&")).Sample((sig, key, name, separator) =>
        {
            string url = $"https://acct.blob.core.windows.net/c{separator}{name}={Uri.EscapeDataString(sig)}&x=1";
            string text = $"error: BlobEndpoint={url};AccountKey={key};SharedAccessSignature=sv=2022&sig={sig} in \"{url}\"";

            string redacted = StorageTarget.Redact(text);

            Assert.DoesNotContain(Uri.EscapeDataString(sig), redacted, StringComparison.Ordinal);
            Assert.DoesNotContain(key, redacted, StringComparison.Ordinal);
            Assert.Contains($"{name}=***", redacted, StringComparison.Ordinal);
            Assert.Contains("https://acct.blob.core.windows.net/c", redacted, StringComparison.Ordinal);
        });
    }

    [Fact]
    public async Task AKeyAndASasOnTheCommandLineAreWarnedOfAndNeverEchoed()
    {
        string key = Convert.ToBase64String(RandomNumberGenerator.GetBytes(64));
        string sig = Convert.ToBase64String(RandomNumberGenerator.GetBytes(32));
        // Nothing listens on port 1: the command fails, and its error names the endpoint.
        string cs = $"AccountName=sbsecret;AccountKey={key};TableEndpoint=http://127.0.0.1:1/sbsecret?sv=2022-11-02&sig={Uri.EscapeDataString(sig)}";

        var (exit, said) = await RunAsync("runs", "--connection-string", cs, "--max", "1");

        Assert.Equal(1, exit);
        Assert.StartsWith("warning: --connection-string puts the account's key on the command line", said, StringComparison.Ordinal);
        Assert.DoesNotContain(key, said, StringComparison.Ordinal);
        Assert.DoesNotContain(sig, said, StringComparison.Ordinal);
        Assert.DoesNotContain(Uri.EscapeDataString(sig), said, StringComparison.Ordinal);
    }

    [Fact]
    public async Task AConnectionStringFromAFileIsReadWithoutAWarningAndABadOneIsOneLineNamingIt()
    {
        string file = Path.Combine(Directory.CreateTempSubdirectory("sb-cs-").FullName, "account.cs");
        string sig = Convert.ToBase64String(RandomNumberGenerator.GetBytes(32));
        await File.WriteAllTextAsync(file, $"BlobEndpoint=nonsense://acct/?sv=2022-11-02&sig={sig};SharedAccessSignature=sv=2022-11-02&sig={sig}\n");

        var (exit, said) = await RunAsync("runs", "--connection-string-file", file);
        var (missingExit, missing) = await RunAsync("runs", "--connection-string-file", file + ".none");
        var (bothExit, both) = await RunAsync("runs", "--connection-string-file", file, "--connection-string", "UseDevelopmentStorage=true");

        Assert.Equal(2, exit);
        Assert.DoesNotContain("warning:", said, StringComparison.Ordinal);
        Assert.DoesNotContain(sig, said, StringComparison.Ordinal);
        Assert.Contains("sig=***", said, StringComparison.Ordinal);
        Assert.Equal(2, missingExit);
        Assert.StartsWith($"error: --connection-string-file: \"{file}.none\" cannot be read", missing, StringComparison.Ordinal);
        Assert.Equal(2, bothExit);
        Assert.StartsWith("error: --connection-string and --connection-string-file: give one of them, not both", both, StringComparison.Ordinal);
    }

    [Fact]
    public async Task TheDevelopmentKeyIsNoSecretAndGetsNoWarning()
    {
        string cs = $"AccountName=devstoreaccount1;AccountKey={StorageTarget.DevelopmentAccountKey};BlobEndpoint=nonsense://127.0.0.1:1/devstoreaccount1";

        var (exit, said) = await RunAsync("cleanup", "--dry-run", "--connection-string", cs);

        Assert.Equal(2, exit);
        Assert.DoesNotContain("warning:", said, StringComparison.Ordinal);
    }

    private static async Task<(int Exit, string Output)> RunAsync(params string[] args)
    {
        using var stdout = new StringWriter();
        using var stderr = new StringWriter();
        int exit = await CliApp.RunAsync(args, stdout, stderr, default);
        return (exit, stderr.ToString() + stdout);
    }
}
