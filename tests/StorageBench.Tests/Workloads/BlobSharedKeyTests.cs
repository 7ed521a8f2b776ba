using Azure;
using Azure.Core.Pipeline;
using Azure.Storage;
using Azure.Storage.Blobs;
using Azure.Storage.Blobs.Models;
using Azure.Storage.Blobs.Specialized;
using CsCheck;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Targets;
using StorageBench.Engine.Workloads.Lean;

namespace StorageBench.Tests;

/// <summary>
/// The lean driver's one Blob Shared Key signer canonicalizes whatever the request carries: for requests the Azure SDK
/// builds with headers drawn at random (metadata, blob properties, conditions, ranges), the lean signature over the same
/// headers equals the one the SDK's StorageSharedKeyCredential put on the request.
/// </summary>
[Trait("Category", "Unit")]
public class BlobSharedKeyTests
{
    private const string Endpoint = "http://127.0.0.1:10000/devstoreaccount1";

    private static readonly Gen<string> Word = Gen.String[Gen.Char["abcxyzABCXYZ0189"], 1, 12];
    private static readonly Gen<string> Value = Gen.Select(Word, Gen.String[Gen.Char["abc XYZ019-_.:/"], 0, 20]).Select((a, b) => a + b.TrimEnd());
    private static readonly Gen<Dictionary<string, string>> Metadata =
        Gen.Select(Word, Value).Array[0, 6].Select(p => p.DistinctBy(m => m.Item1.ToLowerInvariant()).ToDictionary(m => "m" + m.Item1, m => m.Item2));

    [Fact]
    public void TheLeanSignatureIsTheSdksForWhateverHeadersTheRequestCarries()
    {
        using var clients = StorageTarget.FromConnectionString($"DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey={StorageTarget.DevelopmentAccountKey};BlobEndpoint={Endpoint};")
            .CreateClients(new ClientSettings());
        var credential = new StorageSharedKeyCredential("devstoreaccount1", StorageTarget.DevelopmentAccountKey);

        Gen.Select(Gen.Int[0, 2], Word, Metadata, Value, Gen.Int[0, 5_000], Gen.Long[0, 1L << 40]).Sample((operation, name, metadata, text, size, position) =>
        {
            // One capture per sample: CsCheck runs samples on several threads.
            var capture = new Capture();
            var blob = new BlobServiceClient(new Uri(Endpoint), credential, new BlobClientOptions { Transport = new HttpClientTransport(capture), Retry = { MaxRetries = 0 } })
                .GetBlobContainerClient("signed").GetAppendBlobClient("b/" + name);
            Func<Task> send = operation switch
            {
                0 => () => blob.CreateAsync(new AppendBlobCreateOptions { Metadata = metadata, HttpHeaders = new BlobHttpHeaders { ContentLanguage = text, ContentType = name } }),
                1 => () => blob.AppendBlockAsync(new MemoryStream(new byte[size]), new AppendBlobAppendBlockOptions
                {
                    Conditions = new AppendBlobRequestConditions { IfAppendPositionEqual = position, IfMatch = new ETag($"\"0x{position:X}\"") },
                }),
                _ => () => blob.DownloadStreamingAsync(new BlobDownloadOptions { Range = size == 0 ? default : new HttpRange(position, size) }),
            };
            var sdk = capture.Next(send);
            using var lean = Copy(clients.Lean, sdk.Request, sdk.Body);
            lean.CanonicalPath = "/devstoreaccount1" + sdk.Request.RequestUri!.AbsolutePath;
            lean.CanonicalQuery = operation == 1 ? "\ncomp:appendblock" : "";
            Assert.Equal(sdk.Request.Headers.Authorization!.ToString(), "SharedKey devstoreaccount1:" + BlobSharedKey.Signature(lean));
        });
    }

    /// <summary>A lean request carrying the SDK request's method, body and every header but its signature.</summary>
    private static LeanRequest Copy(LeanTransport transport, HttpRequestMessage sdk, byte[]? body)
    {
        var lean = new LeanRequest(transport, sdk.Method, sdk.Content?.Headers.ContentType?.ToString(), body?.Length ?? 0);
        foreach (var header in sdk.Headers.Where(h => h.Key != "Authorization"))
        {
            lean.Set(header.Key, string.Join(",", header.Value));
        }
        if (body is null)
        {
            lean.Message.Content = null;
        }
        else
        {
            lean.Content.Use(body, body.Length);
        }
        return lean;
    }

    /// <summary>Takes the request the SDK's pipeline signed, and answers no request (the send then fails, unretried).</summary>
    private sealed class Capture : HttpMessageHandler
    {
        private (HttpRequestMessage Request, byte[]? Body)? _last;

        public (HttpRequestMessage Request, byte[]? Body) Next(Func<Task> send)
        {
            _last = null;
            Assert.ThrowsAny<Exception>(() => send().GetAwaiter().GetResult());
            return _last ?? throw new InvalidOperationException("the SDK sent nothing");
        }

        protected override async Task<HttpResponseMessage> SendAsync(HttpRequestMessage request, CancellationToken cancellationToken)
        {
            _last = (request, request.Content is null ? null : await request.Content.ReadAsByteArrayAsync(cancellationToken));
            throw new CapturedException();
        }
    }

    private sealed class CapturedException : Exception;
}
