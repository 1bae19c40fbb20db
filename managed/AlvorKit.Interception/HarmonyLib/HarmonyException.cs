namespace AlvorKit.Interception.HarmonyLib;

/// <summary>
/// A patch class or hook that cannot be used, as Harmony reports it: <see cref="Exception.InnerException"/> is the
/// core's exception (<see cref="HookBindingException"/>, <see cref="PatchClassException"/> or the exception a
/// Cleanup returned), whose message this one repeats. The profiler's own refusals (not started under the
/// profiler, a refused batch) are not wrapped: they come as the core's exceptions.
/// </summary>
public class HarmonyException : Exception
{
    /// <summary>An exception with a message.</summary>
    /// <param name="message">What happened.</param>
    public HarmonyException(string message) : base(message)
    {
    }

    /// <summary>An exception with a message and the exception that caused it.</summary>
    /// <param name="message">What happened.</param>
    /// <param name="innerException">The cause.</param>
    public HarmonyException(string message, Exception? innerException) : base(message, innerException)
    {
    }

    /// <summary>An exception without a message.</summary>
    public HarmonyException()
    {
    }
}
