using System.Collections.Concurrent;
using System.Diagnostics;
using System.Reflection.Metadata;
using AlvorKit.Interception.Native;
using AlvorKit.Proofs.Reports;

namespace AlvorKit.Proofs.Host;

/// <summary>
/// Generation submits as fast as the queue takes them:
///   submitstorm [threads] [submits per thread]   (default 4 2000)
/// each thread chaining generations on its own target (MixedStressTargets), yielding on
/// QUEUE_FULL, then removing its patch. Under the AddressSanitizer build of the profiler this
/// is where a submitter that reads the staged generation after the worker freed it shows: the
/// worker runs a whole generation whenever the submitting thread is preempted right after
/// queuing it, which waking the worker on the same core often causes.
/// </summary>
public static class SubmitStormProof
{
    private const int Input = 7;
    private const ulong OwnerBase = 0x7A00;

    public static SubmitStormReport Run(int threads, int submits)
    {
        var patcher = new Patcher();
        ProfilerLibrary library = patcher.Library;
        if (threads > MixedStressTargets.Count)
            throw new ArgumentOutOfRangeException(nameof(threads), threads, $"at most {MixedStressTargets.Count}");
        var b = new GenerationBuilder();
        b.IL.LoadArgument(0);
        b.IL.LoadConstantI4(MixedStressTargets.Generation);
        b.IL.OpCode(ILOpCode.Add);
        b.IL.OpCode(ILOpCode.Ret);
        byte[] body = b.Body();
        AlvkMethodDescription[] targets = Enumerable.Range(0, threads).Select(i => patcher.Describe(MixedStressTargets.Method(i))).ToArray();
        var statuses = new ConcurrentDictionary<string, long>(StringComparer.Ordinal);
        var ids = new ConcurrentDictionary<ulong, byte>();
        int duplicates = 0;
        var clock = Stopwatch.StartNew();
        var workers = Enumerable.Range(0, threads).Select(t => new Thread(() =>
        {
            ulong owner = OwnerBase + (ulong)t, prior = 0, handle = 0;
            for (int accepted = 0; accepted < submits;)
            {
                AlvkStatus status;
                unsafe
                {
                    fixed (byte* p = body)
                    {
                        AlvkGeneration g = AlvkGeneration.For(targets[t], prior, owner);
                        g.Body = p;
                        g.BodySize = (uint)body.Length;
                        status = library.GenerationSubmit(g, out ulong h, out ulong id);
                        if (status == AlvkStatus.Ok)
                        {
                            (handle, prior) = (h, id);
                            accepted++;
                            if (!ids.TryAdd(id, 0))
                                Interlocked.Increment(ref duplicates);
                        }
                    }
                }
                statuses.AddOrUpdate(status.ToString(), 1, (_, n) => n + 1);
                if (status == AlvkStatus.QueueFull)
                    Thread.Yield();
                else if (status == AlvkStatus.StaleGeneration)
                    prior = library.PatchGetTelemetry(handle, out AlvkPatchTelemetry tel) == AlvkStatus.Ok ? tel.LatestGeneration : 0;
            }
            library.PatchWait(handle, Patcher.WaitMs);
            library.PatchRemove(handle, owner);
            library.PatchWait(handle, Patcher.WaitMs);
        })
        { Name = $"submit-storm-{t}" }).ToList();
        workers.ForEach(w => w.Start());
        workers.ForEach(w => w.Join());
        long ms = clock.ElapsedMilliseconds;
        return new SubmitStormReport(threads, submits, ms, new SortedDictionary<string, long>(statuses, StringComparer.Ordinal),
            duplicates, Enumerable.Range(0, threads).All(i => Patcher.PollFor(() => MixedStressTargets.Calls[i](Input), Input + i).Ok));
    }
}
