using AlvorKit.Proofs.Host;

namespace AlvorKit.Proofs.GameMod;

/// <summary>Replacements of the host's DispatchTargets that take the host's own types: class and
/// struct receivers, an in parameter, a struct return; and of targets whose signature has a
/// modreq that no static method can carry (a virtual method's in parameter, an init setter).</summary>
public static class ModReplacements
{
    public static int WidgetOffset(Widget self, int x) => self.Base * 7 + x;

    public static int AccumAddTo(ref Accum self, int x)
    {
        self.Total += x * 1000;
        return self.Total;
    }

    public static double Length(in Vec2 v) => v.X * 100 + v.Y;

    public static Quad MakeQuad(double seed, int n) => new(n, seed, -n, 7);

    public static double ShapeScaled(ScaledShape self, in Vec2 v) => v.X * 10 + v.Y;

    public static void SettingsLevel(Settings self, int value) => self.Raw = value + 1000;
}
