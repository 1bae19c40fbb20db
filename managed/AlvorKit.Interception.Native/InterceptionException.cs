namespace AlvorKit.Interception;

/// <summary>
/// The base of every exception the AlvorKit libraries throw on purpose (patches, plans,
/// allocation capture). <see cref="Status"/> is the profiler's answer when one caused it:
/// <code>
/// catch (InterceptionException e) when (e.Status == InterceptionStatus.QueueFull) { /* try again later */ }
/// </code>
/// </summary>
public class InterceptionException : Exception
{
    /// <summary>An exception with a message and no profiler status.</summary>
    public InterceptionException(string message) : base(message)
    {
    }

    /// <summary>An exception with a message and the exception that caused it.</summary>
    public InterceptionException(string message, Exception? innerException) : base(message, innerException)
    {
    }

    /// <summary>An exception about the profiler's answer <paramref name="status"/>.</summary>
    public InterceptionException(string message, InterceptionStatus? status, Exception? innerException = null)
        : base(message, innerException)
    {
        Status = status;
    }

    /// <summary>The profiler's status that caused this exception; null when the library found the
    /// problem itself, before anything reached the profiler (a replacement's signature, a plan
    /// that cannot be lowered).</summary>
    public InterceptionStatus? Status { get; }
}
