using System.Diagnostics;
using System.Reflection;
using System.Runtime;
using AlvorKit.Interception;

/// <summary>
/// The phases of one timed call in a child (a PatchAll, or one hot-reload update): the library's
/// internal phase marks (AlvorKit.Interception.Internal.PhaseProbe.Sink, set by reflection: it is
/// internal), each with the time and the JIT's counters (the whole process) since the previous
/// mark or the call's start, and the garbage collections (any generation: gen 0's count) in it.
/// PatchAll marks the patch class read, its targets discovered, its hooks bound, the sets made,
/// the bodies composed, woven and lowered, the targets described, the batch submitted, answered
/// and adopted; a reload its file read, its delta read, laid out and translated, its bodies
/// prepared and validated, the batch described, submitted, answered and adopted, the reload
/// committed and its result written. Marks come from whatever thread runs that phase (the
/// watch's queue, the thread pool), one call at a time; marks outside <see cref="Start"/> and
/// <see cref="Stop"/> (a warm-up, a rehearsal) are not kept. The sink and the recording run once
/// before any timing, so their own compilation is in no phase.
/// </summary>
internal static class PhaseMarks
{
    /// <summary>One phase: from the previous mark (or the update's start) to this one.</summary>
    internal sealed record Mark(string Name, double Ms, long JitMethods, double JitMs, long JitCountAtEnd, int Collections);

    private static readonly (string Name, long At, long Methods, TimeSpan Jit, int Gcs)[] Points = new (string, long, long, TimeSpan, int)[64];
    private static int _count;
    private static volatile bool _recording;
    private static (long At, long Methods, TimeSpan Jit, int Gcs) _start;

    public static void Install()
    {
        FieldInfo sink = typeof(Interceptor).Assembly.GetType("AlvorKit.Interception.Internal.PhaseProbe", throwOnError: true)!
            .GetField("Sink", BindingFlags.NonPublic | BindingFlags.Static)
            ?? throw new InvalidOperationException("AlvorKit.Interception has no PhaseProbe.Sink");
        Action<string> record = Record;
        Start(Stopwatch.GetTimestamp(), 0, TimeSpan.Zero);
        record("warm-up");
        _ = Stop("warm-up");
        sink.SetValue(null, record);
    }

    public static void Start(long at, long methods, TimeSpan jit)
    {
        _count = 0;
        _start = (at, methods, jit, GC.CollectionCount(0));
        _recording = true;
    }

    private static void Record(string name)
    {
        if (!_recording)
            return;
        int k = Interlocked.Increment(ref _count) - 1;
        if (k < Points.Length)
            Points[k] = (name, Stopwatch.GetTimestamp(), JitInfo.GetCompiledMethodCount(), JitInfo.GetCompilationTime(),
                         GC.CollectionCount(0));
    }

    public static Mark[] Stop(string last)
    {
        Record(last);
        _recording = false;
        int count = Math.Min(Volatile.Read(ref _count), Points.Length);
        var marks = new Mark[count];
        (long at, long methods, TimeSpan jit, int gcs) = _start;
        for (int i = 0; i < count; i++)
        {
            (string name, long pointAt, long pointMethods, TimeSpan pointJit, int pointGcs) = Points[i];
            marks[i] = new Mark(name, Stopwatch.GetElapsedTime(at, pointAt).TotalMilliseconds, pointMethods - methods,
                                (pointJit - jit).TotalMilliseconds, pointMethods, pointGcs - gcs);
            (at, methods, jit, gcs) = (pointAt, pointMethods, pointJit, pointGcs);
        }
        return marks;
    }
}
