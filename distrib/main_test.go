package distrib

import (
	"os"
	"testing"

	"github.com/opasim/opasim/internal/testlong"
)

func TestMain(m *testing.M) { os.Exit(testlong.Main(m)) }
