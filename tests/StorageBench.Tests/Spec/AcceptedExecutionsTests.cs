using CsCheck;
using StorageBench.Engine.Measurement;
using StorageBench.Engine.Spec;
using StorageBench.Engine.Workloads;
using StorageBench.Orchestration;

namespace StorageBench.Tests;

/// <summary>
/// Issue 42: each segment of a slice is an execution of its own, and every accepted one is named in the step's verification
/// order and its list of accepted slice rows, control payloads of 32 KiB. A spec whose names cannot fit is refused before it
/// starts (a 24-hour run of 16 slices in 5-minute segments would have failed its verification at the end); one that is
/// accepted fits, whatever its slices, duration and segments.
/// </summary>
[Trait("Category", "Unit")]
public class AcceptedExecutionsTests
{
    [Fact]
    public void AcceptedSpecsNameEveryExecutionWithinTheControlBudgetAndTheOthersAreRefusedNamingSegmentSeconds()
    {
        var sizes = Gen.Select(Gen.Int[1, 256], Gen.Int[1, 86_400], Gen.Int[1, 86_400], Gen.Bool);
        sizes.Sample((slices, duration, segment, blobs) =>
        {
            string section = blobs
                ? $$"""{ "blobUpload": { "slices": {{slices}}, "blobSizeBytes": 1024, "blockSizeBytes": 1024, "blobCount": {{slices}}, "verifyContent": true, "durationSeconds": {{duration}} } }"""
                : $$"""{ "tableInsert": { "slices": {{slices}}, "partitionCount": {{slices}}, "durationSeconds": {{duration}} } }""";
            // Parsing validates too: a spec refused comes back without a spec, its errors said.
            var (spec, errors) = RunSpecParser.Parse($$"""{ "scenario": "s", "segmentSeconds": {{segment}}, {{section[1..^1]}} }""");
            int segments = duration > segment ? (duration + segment - 1) / segment : 1;
            if (spec is null)
            {
                var refusal = Assert.Single(errors);
                Assert.Equal("segmentSeconds", refusal.Field);
                Assert.Contains($"{(long)slices * segments:N0} slice executions", refusal.ToString());
                return;
            }
            var (room, workload) = WorkloadList.In(spec).Single();
            Assert.Equal(segments, SegmentPlan.For(workload, spec)?.Count ?? 1);
            // Every execution named as a run names it: a random attempt id each, and each blob slice's content MD5 beside it.
            var results = Enumerable.Range(0, slices).Select(i => Slice(room.Name, i, segments)).ToList();
            var order = room.VerifyOrderOf(spec, new StepPlan("run", "run-s000", "target", DateTime.UtcNow), results);
            var accepted = new[] { new AcceptedSlices(room.Name, SliceExecutions.Attempts(results)) };
            var converter = new PayloadConverter();
            Assert.True(PayloadBudget.SizeOf(converter.Serialize(order)) <= PayloadBudget.ControlBytes, $"{slices} slices × {segments} segments: the order is over budget");
            Assert.True(PayloadBudget.SizeOf(converter.Serialize(accepted)) <= PayloadBudget.ControlBytes, $"{slices} slices × {segments} segments: the accepted list is over budget");
        }, iter: 200);
    }

    [Fact]
    public void ADayOfSixteenSlicesInFiveMinuteSegmentsIsRefusedAndInHalfHourSegmentsAccepted()
    {
        static IReadOnlyList<ValidationError> Check(int segmentSeconds)
        {
            var (spec, errors) = RunSpecParser.Parse($$"""
                { "scenario": "s", "segmentSeconds": {{segmentSeconds}}, "tableInsert": { "slices": 16, "partitionCount": 16, "durationSeconds": 86400 } }
                """);
            return spec is null ? errors : [];
        }

        Assert.Equal("segmentSeconds: 300 cuts the step into 4,608 slice executions (tableInsert 16 slices × 288 segments), whose attempt ids take 50,688 bytes " +
            "of the 24,576 the step's verification may carry: use longer segments (up to a slice's duration) or fewer slices", Assert.Single(Check(300)).ToString());
        Assert.Empty(Check(1800));
    }

    private static SliceResult Slice(string workload, int index, int segments)
    {
        string[] attempts = [.. Enumerable.Range(0, segments).Select(_ => Guid.NewGuid().ToString("N")[..8])];
        return new SliceResult
        {
            StepId = "run-s000", AttemptId = attempts[0], Workload = workload, SliceIndex = index, Host = "h", Worker = "h/1",
            StartedUtc = DateTime.UnixEpoch, EndedUtc = DateTime.UnixEpoch, Counts = new OutcomeCounts(), Timeline = Timeline.Empty, Units = 1, LatencyHistogram = LatencyHistograms.Encode(LatencyHistograms.Create()),
            SegmentAttempts = segments > 1 ? attempts : null,
            SegmentContentMd5 = segments > 1 ? [.. attempts.Select(_ => Convert.ToBase64String(Guid.NewGuid().ToByteArray()))] : null,
            ContentMd5 = Convert.ToBase64String(Guid.NewGuid().ToByteArray()),
        };
    }
}
