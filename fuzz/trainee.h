// The small fixed model, Adam optimizer and StepLR schedule that the
// checkpoint target loads into (checkpoint_fuzz.cpp) and whose checkpoints
// seed its corpus (make_corpus.cpp): both must agree on the architecture.
#pragma once
#include <memory>

#include "nabla/nabla.h"

namespace nabla::fuzz {

struct Trainee {
  std::shared_ptr<nn::Sequential> model;
  std::unique_ptr<optim::Adam> adam;
  std::unique_ptr<optim::StepLR> schedule;
};

inline Trainee make_trainee() {
  manual_seed(0);
  Trainee t;
  t.model = std::make_shared<nn::Sequential>(nn::Linear(3, 4), nn::Tanh(), nn::Linear(4, 2));
  t.adam = std::make_unique<optim::Adam>(t.model->parameters(), optim::Options{{"lr", 0.01}});
  t.schedule = std::make_unique<optim::StepLR>(*t.adam, 2, 0.5);
  return t;
}

}  // namespace nabla::fuzz
