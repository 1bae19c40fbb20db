namespace System.Security;

/// <summary>
/// The attribute the C# compiler turns into the RequireSecObject flag of a method (as it does for the runtime's
/// own copy in CoreLib): the runtime never tail-calls such a method, so a method that finds its caller on the
/// stack (Assembly.GetCallingAssembly) finds it even when the call is in tail position
/// (<c>void Load() =&gt; harmony.PatchAll();</c>). Used by <see cref="AlvorKit.Interception.HarmonyLib.Harmony"/>'s
/// overloads without an assembly.
/// </summary>
[AttributeUsage(AttributeTargets.Method | AttributeTargets.Constructor, AllowMultiple = false, Inherited = false)]
internal sealed class DynamicSecurityMethodAttribute : Attribute;
