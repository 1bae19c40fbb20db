namespace System.Runtime.Versioning;

// CoreLib's attribute is internal; crossgen2 and the runtime match it by namespace and name,
// and so does the profiler (GetCustomAttributeByName).
[AttributeUsage(AttributeTargets.Class | AttributeTargets.Struct | AttributeTargets.Method | AttributeTargets.Constructor, AllowMultiple = false, Inherited = false)]
internal sealed class NonVersionableAttribute : Attribute;
