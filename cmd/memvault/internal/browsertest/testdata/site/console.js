console.error("boom from the fixture");
throw new Error("kaboom from the fixture");
