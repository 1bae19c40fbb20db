namespace AlvorKit.Interception;

/// <summary>
/// Supplies the reference a ref-returning target returns (Harmony's RefResult). A prefix or postfix that takes
/// <c>ref RefResult&lt;T&gt; __resultRef</c> may set it; right after that hook the woven body calls it once and
/// the reference it returns becomes the target's result (a prefix that then returns false makes the target
/// return it without running the original).
/// </summary>
/// <typeparam name="T">The type the target returns a reference to.</typeparam>
/// <returns>The reference the target returns.</returns>
public delegate ref T RefResult<T>();
